#ifndef VISIONTASKS_CJPEG_SHIM_H
#define VISIONTASKS_CJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#endif
