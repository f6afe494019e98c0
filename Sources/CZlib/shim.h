// The system zlib, for reading and writing gzip files.
#include <zlib.h>
