/* fnn.c - the fnn functions of haze._ext (being written). */
#include "hazepy.h"

PyMethodDef hpy_fnn_methods[] = {{NULL, NULL, 0, NULL}};
