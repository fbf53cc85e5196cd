/*
 * haze/haze.h - the umbrella header: include this one to get all of haze.
 *
 * Modules: core (status, context, devices), io (tables and output files).
 * Each later module adds its header here.
 *
 * The API's conventions and its one rule on threads are stated in
 * haze/core.h; each module's header refers to them.
 */
#ifndef HAZE_HAZE_H
#define HAZE_HAZE_H

#include "haze/version.h"
#include "haze/core.h"
#include "haze/io.h"
/* certified fuzzy arithmetic */
#include "haze/round.h"
#include "haze/interval.h"
#include "haze/fuzzy.h"

/* fuzzy inference and edge detection */
#include "haze/fis.h"
#include "haze/image.h"
#include "haze/edge.h"

/* fuzzy c-means */
#include "haze/fcm.h"

/* neuro-fuzzy network */
#include "haze/fnn.h"

/* rounding-error analysis */
#include "haze/prec.h"

#endif
