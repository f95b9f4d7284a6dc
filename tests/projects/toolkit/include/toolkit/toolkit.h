/* toolkit.h - everything in the toolkit library. */
#ifndef TOOLKIT_TOOLKIT_H
#define TOOLKIT_TOOLKIT_H

#define TOOLKIT_VERSION_MAJOR 1
#define TOOLKIT_VERSION_MINOR 4
#define TOOLKIT_VERSION_STRING "1.4"

#include "toolkit/arena.h"
#include "toolkit/checksum.h"
#include "toolkit/codec.h"
#include "toolkit/colstats.h"
#include "toolkit/common.h"
#include "toolkit/expr.h"
#include "toolkit/hashmap.h"
#include "toolkit/image.h"
#include "toolkit/ini.h"
#include "toolkit/intern.h"
#include "toolkit/json.h"
#include "toolkit/lexer.h"
#include "toolkit/list.h"
#include "toolkit/matrix.h"
#include "toolkit/nbody.h"
#include "toolkit/numfmt.h"
#include "toolkit/opts.h"
#include "toolkit/pqueue.h"
#include "toolkit/prng.h"
#include "toolkit/sort.h"
#include "toolkit/stencil.h"
#include "toolkit/strbuf.h"
#include "toolkit/strutil.h"
#include "toolkit/utf8.h"
#include "toolkit/vec.h"

#endif
