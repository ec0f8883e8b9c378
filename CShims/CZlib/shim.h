// zlib (Debian zlib1g-dev): gzip inflation for other servers' compressed storage snapshots.
#include <zlib.h>
