// hipFFT's older include name (what hipify writes for cufft.h).
#pragma once
#include <hipfft/hipfft.h>
