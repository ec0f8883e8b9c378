// glibc's allocator statistics and controls (<malloc.h>), which the Swift Glibc module does not
// export: what the hub reports about its own memory and how it hands free pages back.
#ifndef CALLOCATOR_H
#define CALLOCATOR_H

#include <stddef.h>

typedef struct {
    /// Bytes handed out by malloc and not freed (mallinfo2 uordblks + hblkhd).
    size_t in_use;
    /// Bytes the allocator holds free in its arenas (fordblks).
    size_t free_held;
    /// Bytes of the arenas' system memory (arena + hblkhd).
    size_t from_system;
} callocator_stats;

/// The allocator's current figures, summed over every arena.
callocator_stats callocator_current(void);

/// Returns the arenas' free pages to the system (malloc_trim(0)); 1 when some memory was released.
int callocator_trim(void);

/// Caps the number of malloc arenas (mallopt M_ARENA_MAX); 1 on success.
int callocator_limit_arenas(int count);

#endif
