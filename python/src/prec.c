/* prec.c - the prec functions of haze._ext (being written). */
#include "hazepy.h"

PyMethodDef hpy_prec_methods[] = {{NULL, NULL, 0, NULL}};
