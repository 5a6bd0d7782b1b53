// ROCm's other path to ROCTx (roctracer's): the same header as <roctx.h>.
#include "../roctx.h"
