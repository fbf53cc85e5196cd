/* fuzzy.c - the fuzzy functions of haze._ext (being written). */
#include "hazepy.h"

PyMethodDef hpy_fuzzy_methods[] = {{NULL, NULL, 0, NULL}};
