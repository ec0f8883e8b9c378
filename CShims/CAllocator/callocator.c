#include "callocator.h"
#include <malloc.h>

callocator_stats callocator_current(void) {
    struct mallinfo2 info = mallinfo2();
    callocator_stats stats = { info.uordblks + info.hblkhd, info.fordblks, info.arena + info.hblkhd };
    return stats;
}

int callocator_trim(void) { return malloc_trim(0); }

int callocator_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
