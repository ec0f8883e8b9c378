#define _GNU_SOURCE
#include "cnet.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <spawn.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

int cnet_udp_open(uint16_t port) {
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int off = 0, on = 1;
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) < 0 ||
        setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof on) < 0 ||
        setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof on) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    struct sockaddr_in6 sa;
    memset(&sa, 0, sizeof sa);
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(port);
    sa.sin6_addr = in6addr_any;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int cnet_local_port(int fd) {
    struct sockaddr_in6 sa;
    socklen_t n = sizeof sa;
    if (getsockname(fd, (struct sockaddr *)&sa, &n) < 0) return -errno;
    return ntohs(sa.sin6_port);
}

int cnet_cmsg_ifindex(const void *control, size_t control_len, uint32_t *ifindex) {
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_control = (void *)control;
    msg.msg_controllen = control_len;
    int found = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        // A message whose cmsg_len runs past the buffer ends the walk (CMSG_FIRSTHDR checks only
        // that a header fits); one too short for its payload is skipped.
        size_t offset = (size_t)((const unsigned char *)c - (const unsigned char *)control);
        if (c->cmsg_len > control_len - offset) break;
        if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
            struct in6_pktinfo info;
            memcpy(&info, CMSG_DATA(c), sizeof info);
            *ifindex = info.ipi6_ifindex;
            found = 1;
        } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
                   c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
            struct in_pktinfo info;
            memcpy(&info, CMSG_DATA(c), sizeof info);
            *ifindex = (uint32_t)info.ipi_ifindex;
            found = 1;
        }
    }
    return found;
}

ssize_t cnet_recv(int fd, uint8_t *buf, size_t len, uint8_t addr16[16], uint16_t *port, uint32_t *ifindex) {
    struct sockaddr_in6 from;
    char control[256];
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_name = &from;
    msg.msg_namelen = sizeof from;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(fd, &msg, 0);
    if (n < 0) return -errno;
    memcpy(addr16, &from.sin6_addr, 16);
    *port = ntohs(from.sin6_port);
    *ifindex = from.sin6_scope_id;
    cnet_cmsg_ifindex(msg.msg_control, msg.msg_controllen, ifindex);
    return n;
}

ssize_t cnet_send(int fd, const uint8_t *buf, size_t len, const uint8_t addr16[16], uint16_t port, uint32_t scope) {
    struct sockaddr_in6 to;
    memset(&to, 0, sizeof to);
    to.sin6_family = AF_INET6;
    to.sin6_port = htons(port);
    memcpy(&to.sin6_addr, addr16, 16);
    // Only link-local destinations take a scope; others must have 0.
    if (addr16[0] == 0xfe && (addr16[1] & 0xc0) == 0x80) to.sin6_scope_id = scope;
    ssize_t n;
    do {
        n = sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof to);
    } while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n;
}

int cnet_enter_netns(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = setns(fd, CLONE_NEWNET);
    int e = errno;
    close(fd);
    return r < 0 ? -e : 0;
}

int cnet_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int cnet_epoll_add(int epfd, int fd) {
    struct epoll_event event = { .events = EPOLLIN, .data = { .fd = fd } };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) < 0 ? -errno : 0;
}

int cnet_epoll_remove(int epfd, int fd) {
    struct epoll_event event = { 0 };
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event) < 0 ? -errno : 0;
}

int cnet_epoll_wait(int epfd, int *fds, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, events, max, timeout_ms);
    if (n < 0) return -errno;
    for (int i = 0; i < n; i++) fds[i] = events[i].data.fd;
    return n;
}

int cnet_timerfd_create(void) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int cnet_timerfd_arm(int fd, uint64_t nanoseconds) {
    if (nanoseconds == 0) nanoseconds = 1;  // 0 would disarm it
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(nanoseconds / 1000000000u);
    spec.it_value.tv_nsec = (long)(nanoseconds % 1000000000u);
    return timerfd_settime(fd, 0, &spec, NULL) == 0 ? 0 : -errno;
}

void cnet_timerfd_clear(int fd) {
    uint64_t expirations;
    while (read(fd, &expirations, sizeof expirations) < 0 && errno == EINTR) {}
}

int cnet_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}

int cnet_accept_cloexec(int listener, int nonblocking) {
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0));
    return fd >= 0 ? fd : -errno;
}

int cnet_spawn_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}
