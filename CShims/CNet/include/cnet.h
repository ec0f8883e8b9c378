// UDP helpers Swift cannot express: CMSG macros and in6_pktinfo (which needs _GNU_SOURCE) to
// learn the interface each datagram arrived on, and sockets created inside another network
// namespace.
#ifndef CNET_H
#define CNET_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/// Opens a non-blocking dual-stack (IPv6 + IPv4-mapped) UDP socket bound to `port` (0: any),
/// with arrival-interface reporting on. Returns the fd, or -errno.
int cnet_udp_open(uint16_t port);

/// The port the socket is bound to, or -errno.
int cnet_local_port(int fd);

/// Receives one datagram. `addr16` gets the source as 16 bytes (IPv4 as ::ffff:a.b.c.d),
/// `port` the source port, `ifindex` the arrival interface (0 if unknown).
/// Returns the length, or -errno (-EAGAIN when nothing is waiting).
ssize_t cnet_recv(int fd, uint8_t *buf, size_t len, uint8_t addr16[16], uint16_t *port, uint32_t *ifindex);

/// Reads the arrival interface from a received control buffer (msg_control/msg_controllen of
/// recvmsg, CMSG-aligned): IPV6_PKTINFO or IP_PKTINFO, the last one wins. A message whose
/// cmsg_len runs past the buffer ends the walk; one too short for its payload is skipped.
/// Returns 1 and sets `*ifindex` when one was found, else 0 and leaves it alone.
int cnet_cmsg_ifindex(const void *control, size_t control_len, uint32_t *ifindex);

/// Sends one datagram to addr16:port; `scope` is the interface index for fe80:: addresses.
/// Returns the bytes sent, or -errno.
ssize_t cnet_send(int fd, const uint8_t *buf, size_t len, const uint8_t addr16[16], uint16_t port, uint32_t scope);

/// Enters the network namespace at `path` (e.g. /run/netns/NAME) on the calling thread only.
/// Returns 0 or -errno.
int cnet_enter_netns(const char *path);

/// epoll for the datagram reactor, without exposing the packed `struct epoll_event` to Swift.
/// A close-on-exec epoll instance, or -errno.
int cnet_epoll_create(void);
/// Watches `fd` for input (level-triggered); 0 or -errno.
int cnet_epoll_add(int epfd, int fd);
/// Stops watching `fd`; 0 or -errno.
int cnet_epoll_remove(int epfd, int fd);
/// Waits up to `timeout_ms` (-1: forever) and writes the ready descriptors to `fds` (at most
/// `max`); returns their count, or -errno (-EINTR when a signal interrupted the wait).
int cnet_epoll_wait(int epfd, int *fds, int max, int timeout_ms);

/// A timer descriptor for the reactor's epoll (CLOCK_MONOTONIC, non-blocking, close-on-exec):
/// arming it is one system call and wakes no thread; the reactor thread wakes when it expires.
/// The fd, or -errno.
int cnet_timerfd_create(void);
/// Arms it to expire `nanoseconds` from now (at least 1 ns; a later call replaces the setting).
/// 0 or -errno.
int cnet_timerfd_arm(int fd, uint64_t nanoseconds);
/// Reads away its expiry count so that epoll stops reporting it.
void cnet_timerfd_clear(int fd);

/// Descriptors that a child process must not inherit. A descriptor made close-on-exec after
/// it was opened can leak into a child spawned by another thread in between: a pipe held open
/// that way keeps its reader waiting for an end of file until the unrelated child exits.
/// pipe2(O_CLOEXEC); 0 or -errno.
int cnet_pipe_cloexec(int fds[2]);
/// accept4 with SOCK_CLOEXEC (and SOCK_NONBLOCK when `nonblocking`): the connection's fd, or -errno.
int cnet_accept_cloexec(int listener, int nonblocking);
/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor >= `from` (after
/// the earlier actions, e.g. its dup2s to 0-2). `actions` is a posix_spawn_file_actions_t *.
int cnet_spawn_close_from(void *actions, int from);

#endif
