// The CPU model of the AIE API subset the emitted tile kernels use (the real header
// is <aie_api/aie.hpp> of the AIE tools); one header per API family.
#pragma once

#include "../aie_accum.h"
#include "../aie_mask.h"
#include "../aie_vector.h"
