// The system's zlib (Debian's zlib1g-dev), for its CRC-32: declared here rather than borrowed from another package's
// internal C target.
#include <zlib.h>
