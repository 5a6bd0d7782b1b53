// hipkit NVIDIA platform, whole programs: hipRAND, on cuRAND (hipkit_rand/curand.h), as
// hipRAND's own NVIDIA backend does.  Programs that include it link with -lhiprand, which
// hipkit cc --platform nvidia makes cuRAND.
#pragma once
#include <hipkit_rand/curand.h>
