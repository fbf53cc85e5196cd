/* fcm.c - the fcm functions of haze._ext (being written). */
#include "hazepy.h"

PyMethodDef hpy_fcm_methods[] = {{NULL, NULL, 0, NULL}};
