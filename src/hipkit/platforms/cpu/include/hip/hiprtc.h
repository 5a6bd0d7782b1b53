// hipkit CPU platform: hiprtc in whole programs.
//
// Without this header a program's #include <hip/hiprtc.h> would find a system
// ROCm's (Debian's libamdhip64-dev installs one), which cannot work here.
#pragma once
#error "hiprtc is not available to programs built for the CPU yet (hipkit cc --platform cpu); Python has it: hipkit.hip.hiprtcCreateProgram"
