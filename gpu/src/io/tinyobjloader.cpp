// tinyobjloader's implementation, compiled from Debian's header (libtinyobjloader-dev) into
// voxhash_io rather than linked from its shared library, so that the sanitizer builds and the OBJ
// fuzzer instrument the code that reads OBJ text (see obj.cpp for the guard in front of it).
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
