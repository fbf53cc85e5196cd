/*
 * haze/haze.h - the umbrella header: include this one to get all of haze.
 *
 * Modules: core (status, context, devices), io (tables and output files).
 * Each later module adds its header here.
 */
#ifndef HAZE_HAZE_H
#define HAZE_HAZE_H

#include "haze/version.h"
#include "haze/core.h"
#include "haze/io.h"
/* certified fuzzy arithmetic */

/* fuzzy inference and edge detection */

/* fuzzy c-means */

/* neuro-fuzzy network */
#include "haze/fnn.h"

/* rounding-error analysis */

#endif
