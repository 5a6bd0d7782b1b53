// hipkit CPU platform: HIP's hip_texture_types.h, for texture objects, which the CPU platform
// lacks so far: a clear error here rather than a system ROCm's header.
#pragma once
#error "hipkit: textures and surfaces (hip_texture_types.h, texture_types.h, surface_types.h, channel_descriptor.h) are not available on the CPU platform yet"
