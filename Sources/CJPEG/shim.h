// The system libjpeg (libjpeg-turbo), for decoding JPEG images. jpeglib.h needs FILE and size_t first.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
