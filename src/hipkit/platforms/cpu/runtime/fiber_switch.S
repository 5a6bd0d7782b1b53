// Fiber context switch for x86_64 (System V) and aarch64 (AAPCS64).
//
//   void* hk_fiber_make(void* stack_top, void (*entry)(void*), void* arg);
//     Lays out a first frame at the top of a fresh stack and returns the stack
//     pointer to switch to; the fiber then calls entry(arg), which must never
//     return.  The fiber starts with the caller's floating-point control words.
//   void hk_fiber_switch(void** save_sp, void* to_sp);
//     Saves the callee-saved registers and the floating-point control words
//     on the current stack, stores the stack pointer in *save_sp and resumes
//     the context saved at to_sp.  No system call: the signal mask is shared.

#if defined(__x86_64__)

        .text

// Frame, from the saved stack pointer up: mxcsr (4 bytes), x87 control word
// (2 bytes, padded to 4), r15, r14, r13, r12, rbx, rbp, return address.
        .globl  hk_fiber_switch
        .hidden hk_fiber_switch
        .type   hk_fiber_switch, @function
        .p2align 4
hk_fiber_switch:
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        // Each reloaded at the width it was stored, so that the loads are
        // forwarded from the stores.
        movl    (%rsp), %eax
        movzwl  4(%rsp), %ecx
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        // Loading the control words serializes the pipeline: skip it in the
        // usual case, where both contexts have the same ones.
        cmpl    (%rsp), %eax
        jne     1f
        cmpw    4(%rsp), %cx
        je      2f
1:      ldmxcsr (%rsp)
        fldcw   4(%rsp)
2:      addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   hk_fiber_switch, .-hk_fiber_switch

        .globl  hk_fiber_make
        .hidden hk_fiber_make
        .type   hk_fiber_make, @function
        .p2align 4
hk_fiber_make:
        andq    $-16, %rdi
        leaq    -64(%rdi), %rax         // after the final ret, rsp = top (16-aligned)
        stmxcsr (%rax)
        fnstcw  4(%rax)
        movq    $0, 8(%rax)             // r15
        movq    $0, 16(%rax)            // r14
        movq    %rsi, 24(%rax)          // r13: entry
        movq    %rdx, 32(%rax)          // r12: arg
        movq    $0, 40(%rax)            // rbx
        movq    $0, 48(%rax)            // rbp: ends frame-pointer walks
        leaq    hk_fiber_start(%rip), %rcx
        movq    %rcx, 56(%rax)
        ret
        .size   hk_fiber_make, .-hk_fiber_make

        .type   hk_fiber_start, @function
        .p2align 4
hk_fiber_start:
        .cfi_startproc
        .cfi_undefined rip              // the outermost frame of a fiber
        movq    %r12, %rdi
        callq   *%r13
        ud2
        .cfi_endproc
        .size   hk_fiber_start, .-hk_fiber_start

#elif defined(__aarch64__)

        .text

// Frame of 176 bytes: x19..x30 at 0..95, d8..d15 at 96..159, fpcr at 160.
        .globl  hk_fiber_switch
        .hidden hk_fiber_switch
        .type   hk_fiber_switch, %function
        .p2align 2
hk_fiber_switch:
        sub     sp, sp, #176
        stp     x19, x20, [sp, #0]
        stp     x21, x22, [sp, #16]
        stp     x23, x24, [sp, #32]
        stp     x25, x26, [sp, #48]
        stp     x27, x28, [sp, #64]
        stp     x29, x30, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        mrs     x9, fpcr
        str     x9, [sp, #160]
        mov     x10, sp
        str     x10, [x0]
        mov     sp, x1
        // Writing fpcr may serialize: skip it when both contexts agree.
        ldr     x10, [sp, #160]
        cmp     x9, x10
        b.eq    1f
        msr     fpcr, x10
1:
        ldp     d14, d15, [sp, #144]
        ldp     d12, d13, [sp, #128]
        ldp     d10, d11, [sp, #112]
        ldp     d8, d9, [sp, #96]
        ldp     x29, x30, [sp, #80]
        ldp     x27, x28, [sp, #64]
        ldp     x25, x26, [sp, #48]
        ldp     x23, x24, [sp, #32]
        ldp     x21, x22, [sp, #16]
        ldp     x19, x20, [sp, #0]
        add     sp, sp, #176
        ret
        .size   hk_fiber_switch, .-hk_fiber_switch

        .globl  hk_fiber_make
        .hidden hk_fiber_make
        .type   hk_fiber_make, %function
        .p2align 2
hk_fiber_make:
        and     x0, x0, #~15
        sub     x0, x0, #176
        stp     x2, x1, [x0, #0]        // x19: arg, x20: entry
        stp     xzr, xzr, [x0, #16]
        stp     xzr, xzr, [x0, #32]
        stp     xzr, xzr, [x0, #48]
        stp     xzr, xzr, [x0, #64]
        adr     x9, hk_fiber_start
        stp     xzr, x9, [x0, #80]      // x29: 0 ends frame-pointer walks; x30: start
        stp     xzr, xzr, [x0, #96]
        stp     xzr, xzr, [x0, #112]
        stp     xzr, xzr, [x0, #128]
        stp     xzr, xzr, [x0, #144]
        mrs     x9, fpcr
        str     x9, [x0, #160]
        ret
        .size   hk_fiber_make, .-hk_fiber_make

        .type   hk_fiber_start, %function
        .p2align 2
hk_fiber_start:
        .cfi_startproc
        .cfi_undefined x30              // the outermost frame of a fiber
        mov     x0, x19
        blr     x20
        brk     #0
        .cfi_endproc
        .size   hk_fiber_start, .-hk_fiber_start

#else
#error "hipkit's CPU runtime has a fiber switch for x86_64 and aarch64 only"
#endif

        .section .note.GNU-stack, "", %progbits
