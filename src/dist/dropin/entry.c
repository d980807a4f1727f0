/* The six symbols this library exports, written once (entry_impl.h) and
 * instantiated for double and float. */
#include <stddef.h>

#include "dropin.h"

#define LS_REAL_IMPL "entry_impl.h"
#include "../../common/instantiate_real.h"
