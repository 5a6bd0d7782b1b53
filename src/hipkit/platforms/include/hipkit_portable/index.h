// hipkit: HIP's hipThreadIdx_x & co., the older spellings of threadIdx.x & co.
// Plain C++ on HIP's own device API, shared by the CPU, NVIDIA and AMD platforms'
// device headers, which define __HK_FN and __HK_INLINE and include this.
#pragma once

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)
