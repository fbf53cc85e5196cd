/* fis.c - the fis functions of haze._ext (being written). */
#include "hazepy.h"

PyMethodDef hpy_fis_methods[] = {{NULL, NULL, 0, NULL}};
