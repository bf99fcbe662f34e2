; RUN: dx-llvm-opt --stream-prefetch-bytes=8192 %s | FileCheck %s
; RUN: dx-llvm-opt --stream-prefetch-bytes=4096 %s | FileCheck %s --check-prefix=NEAR
; RUN: dx-llvm-opt %s | FileCheck %s --check-prefix=OFF

; Software prefetches (StreamPrefetch.h): in each innermost loop, a stream
; of vector accesses that advance by a constant step gets one prefetch per
; 64-byte line of the step, the given distance ahead of its lowest access,
; before it. Not for scalar loads, rows far apart, or a loop that writes
; a stream of fresh lines with plain stores.

; OFF-NOT: llvm.prefetch

; Two 8-float loads per iteration, 32 bytes apart: one stream of 64 bytes
; per iteration: one prefetch, before the load at the lower address (the
; second in program order).
; CHECK-LABEL: define float @sum_two_registers(
; CHECK: %hi = load <8 x float>, ptr %p.hi
; CHECK-NEXT: %prefetch.addr = getelementptr i8, ptr %p.lo, i64 8192
; CHECK-NEXT: call void @llvm.prefetch.p0(ptr %prefetch.addr, i32 0, i32 3, i32 1)
; CHECK-NEXT: %lo = load <8 x float>, ptr %p.lo
; CHECK-NOT: llvm.prefetch
; CHECK: ret float
; NEAR-LABEL: define float @sum_two_registers(
; NEAR: getelementptr i8, ptr %p.lo, i64 4096
define float @sum_two_registers(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi <8 x float> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %p.lo = getelementptr float, ptr %a, i64 %i
  %p.hi = getelementptr i8, ptr %p.lo, i64 32
  %hi = load <8 x float>, ptr %p.hi, align 32
  %lo = load <8 x float>, ptr %p.lo, align 64
  %s = fadd <8 x float> %lo, %hi
  %acc.next = fadd <8 x float> %acc, %s
  %i.next = add i64 %i, 16
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = call float @llvm.vector.reduce.fadd.v8f32(float 0.0, <8 x float> %acc.next)
  ret float %r
}

; A 128-byte step (two 16-float registers): two lines per iteration.
; CHECK-LABEL: define float @sum_avx512_tile(
; CHECK: getelementptr i8, ptr %p.lo, i64 8192
; CHECK-NEXT: call void @llvm.prefetch.p0
; CHECK-NEXT: getelementptr i8, ptr %p.lo, i64 8256
; CHECK-NEXT: call void @llvm.prefetch.p0
; CHECK-NOT: llvm.prefetch
; CHECK: ret float
define float @sum_avx512_tile(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi <16 x float> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %p.lo = getelementptr float, ptr %a, i64 %i
  %p.hi = getelementptr i8, ptr %p.lo, i64 64
  %lo = load <16 x float>, ptr %p.lo, align 64
  %hi = load <16 x float>, ptr %p.hi, align 64
  %s = fadd <16 x float> %lo, %hi
  %acc.next = fadd <16 x float> %acc, %s
  %i.next = add i64 %i, 32
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = call float @llvm.vector.reduce.fadd.v16f32(float 0.0, <16 x float> %acc.next)
  ret float %r
}

; An update in place (the optimizer's): w and g read, w written where it
; was read. Two streams, one prefetch each.
; CHECK-LABEL: define void @update_in_place(
; CHECK: getelementptr i8, ptr %pw, i64 8192
; CHECK-NEXT: call void @llvm.prefetch.p0
; CHECK: getelementptr i8, ptr %pg, i64 8192
; CHECK-NEXT: call void @llvm.prefetch.p0
; CHECK-NOT: llvm.prefetch
; CHECK: ret void
define void @update_in_place(ptr %w, ptr %g, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pw = getelementptr float, ptr %w, i64 %i
  %pg = getelementptr float, ptr %g, i64 %i
  %vw = load <8 x float>, ptr %pw, align 32
  %vg = load <8 x float>, ptr %pg, align 32
  %nw = fsub <8 x float> %vw, %vg
  store <8 x float> %nw, ptr %pw, align 32
  %i.next = add i64 %i, 8
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; A map writing fresh lines with plain stores: no prefetch in the loop.
; CHECK-LABEL: define void @map_plain_store(
; CHECK-NOT: llvm.prefetch
; CHECK: ret void
define void @map_plain_store(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %v = load <8 x float>, ptr %px, align 32
  %r = fmul <8 x float> %v, %v
  store <8 x float> %r, ptr %py, align 32
  %i.next = add i64 %i, 8
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; The same map with non-temporal stores (dx-vectorize-cpu's above 4 MiB):
; the stores allocate no line, the read stream is prefetched.
; CHECK-LABEL: define void @map_streaming_store(
; CHECK: getelementptr i8, ptr %px, i64 8192
; CHECK-NEXT: call void @llvm.prefetch.p0
; CHECK-NOT: llvm.prefetch
; CHECK: ret void
define void @map_streaming_store(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %v = load <8 x float>, ptr %px, align 32
  %r = fmul <8 x float> %v, %v
  store <8 x float> %r, ptr %py, align 32, !nontemporal !0
  %i.next = add i64 %i, 8
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; Scalar loads (a remainder) and vector loads 4 KiB apart per iteration
; (a column of rows): no stream.
; CHECK-LABEL: define float @scalar_and_strided(
; CHECK-NOT: llvm.prefetch
; CHECK: ret float
define float @scalar_and_strided(ptr %a, ptr %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %vacc = phi <8 x float> [ zeroinitializer, %entry ], [ %vacc.next, %loop ]
  %pa = getelementptr float, ptr %a, i64 %i
  %s = load float, ptr %pa, align 4
  %acc.next = fadd float %acc, %s
  %row = mul i64 %i, 1024
  %pb = getelementptr float, ptr %b, i64 %row
  %v = load <8 x float>, ptr %pb, align 32
  %vacc.next = fadd <8 x float> %vacc, %v
  %i.next = add i64 %i, 1
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = call float @llvm.vector.reduce.fadd.v8f32(float %acc.next, <8 x float> %vacc.next)
  ret float %r
}

; Only innermost loops: the outer loop's loads get none, the inner loop's
; stream does.
; CHECK-LABEL: define float @nested(
; CHECK: outer:
; CHECK-NOT: llvm.prefetch
; CHECK: inner:
; CHECK: getelementptr i8, ptr %pi, i64 8192
; CHECK-NEXT: call void @llvm.prefetch.p0
; CHECK-NOT: llvm.prefetch
; CHECK: ret float
define float @nested(ptr %a, ptr %b, i64 %n) {
entry:
  br label %outer
outer:
  %j = phi i64 [ 0, %entry ], [ %j.next, %latch ]
  %acc = phi <8 x float> [ zeroinitializer, %entry ], [ %acc.inner, %latch ]
  %pj = getelementptr float, ptr %b, i64 %j
  %vj = load <8 x float>, ptr %pj, align 32
  %row = mul i64 %j, %n
  br label %inner
inner:
  %i = phi i64 [ 0, %outer ], [ %i.next, %inner ]
  %acc.i = phi <8 x float> [ %vj, %outer ], [ %acc.inner, %inner ]
  %k = add i64 %row, %i
  %pi = getelementptr float, ptr %a, i64 %k
  %vi = load <8 x float>, ptr %pi, align 32
  %acc.inner = fadd <8 x float> %acc.i, %vi
  %i.next = add i64 %i, 8
  %idone = icmp sge i64 %i.next, %n
  br i1 %idone, label %latch, label %inner
latch:
  %j.next = add i64 %j, 8
  %done = icmp sge i64 %j.next, %n
  br i1 %done, label %exit, label %outer
exit:
  %r = call float @llvm.vector.reduce.fadd.v8f32(float 0.0, <8 x float> %acc.inner)
  ret float %r
}

declare float @llvm.vector.reduce.fadd.v8f32(float, <8 x float>)
declare float @llvm.vector.reduce.fadd.v16f32(float, <16 x float>)

!0 = !{i32 1}
