/* edge.c - the edge functions of haze._ext (being written). */
#include "hazepy.h"

PyMethodDef hpy_edge_methods[] = {{NULL, NULL, 0, NULL}};
