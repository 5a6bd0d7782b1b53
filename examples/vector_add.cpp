#include <iostream>
#include <hip/hip_runtime.h>

#define CHECK_HIP(call)                                                         \
    do {                                                                        \
        hipError_t error = call;                                                \
        if (error != hipSuccess) {                                              \
            std::cerr << "HIP error: " << hipGetErrorString(error)              \
                      << " at line " << __LINE__ << std::endl;                  \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

__global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        C[idx] = A[idx] + B[idx];
    }
}

int main() {
    const int N = 1000000;
    const int blockSize = 256;
    const int gridSize = (N + blockSize - 1) / blockSize;

    float* h_A = new float[N];
    float* h_B = new float[N];
    float* h_C = new float[N];
    for (int i = 0; i < N; i++) {
        h_A[i] = i;
        h_B[i] = i * 2;
    }

    float *d_A, *d_B, *d_C;
    CHECK_HIP(hipMalloc(&d_A, N * sizeof(float)));
    CHECK_HIP(hipMalloc(&d_B, N * sizeof(float)));
    CHECK_HIP(hipMalloc(&d_C, N * sizeof(float)));

    CHECK_HIP(hipMemcpy(d_A, h_A, N * sizeof(float), hipMemcpyHostToDevice));
    CHECK_HIP(hipMemcpy(d_B, h_B, N * sizeof(float), hipMemcpyHostToDevice));

    hipLaunchKernelGGL(vectorAdd, dim3(gridSize), dim3(blockSize), 0, 0, d_A, d_B, d_C, N);
    CHECK_HIP(hipDeviceSynchronize());

    CHECK_HIP(hipMemcpy(h_C, d_C, N * sizeof(float), hipMemcpyDeviceToHost));

    bool passed = true;
    for (int i = 0; i < 5; i++) {
        float expected = h_A[i] + h_B[i];
        if (fabs(h_C[i] - expected) > 1e-5) {
            std::cout << "Mismatch at index " << i << ": " << h_C[i] << " != " << expected << std::endl;
            passed = false;
        }
    }
    if (passed) {
        std::cout << "Vector add test PASSED!" << std::endl;
    }

    CHECK_HIP(hipFree(d_A));
    CHECK_HIP(hipFree(d_B));
    CHECK_HIP(hipFree(d_C));
    delete[] h_A;
    delete[] h_B;
    delete[] h_C;
    return 0;
}
