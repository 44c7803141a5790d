#ifndef VISIONTASKS_CPNG_SHIM_H
#define VISIONTASKS_CPNG_SHIM_H
#include <png.h>
#endif
