// The system libpng, for decoding PNG images.
#include <png.h>
