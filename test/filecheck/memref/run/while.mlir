// RUN: lanearena-run %s > %t.before
// RUN: lanearena-opt %s -p memref-arena-place | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before
// RUN: filecheck %s --input-file=%t.placed --check-prefix=PLACED

// A Collatz-style scf.while whose body allocates a scratch buffer each iteration and an scf.if that allocates in
// both branches; the state buffer lives across the loop. Printed the same before and after placement.

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %start = arith.constant 6 : i32
  %state = memref.alloc() : memref<2xi32>
  memref.store %start, %state[%c0] : memref<2xi32>
  %zero = arith.constant 0 : i32
  memref.store %zero, %state[%c1] : memref<2xi32>
  scf.while () : () -> () {
    %n = memref.load %state[%c0] : memref<2xi32>
    %more = arith.cmpi ne, %n, %one : i32
    scf.condition(%more)
  } do {
    %scratch = memref.alloc() : memref<3xi32>
    %n = memref.load %state[%c0] : memref<2xi32>
    %r = arith.remsi %n, %two : i32
    %odd = arith.cmpi ne, %r, %zero : i32
    scf.if %odd {
      %t = memref.alloc() : memref<4xi32>
      %m = arith.muli %n, %three : i32
      %m1 = arith.addi %m, %one : i32
      memref.store %m1, %t[%c3] : memref<4xi32>
      %v = memref.load %t[%c3] : memref<4xi32>
      memref.store %v, %scratch[%c2] : memref<3xi32>
      memref.dealloc %t : memref<4xi32>
    } else {
      %e = memref.alloc() : memref<8xi32>
      %h = arith.divsi %n, %two : i32
      memref.store %h, %e[%c0] : memref<8xi32>
      %v = memref.load %e[%c0] : memref<8xi32>
      memref.store %v, %scratch[%c2] : memref<3xi32>
      memref.dealloc %e : memref<8xi32>
    }
    %next = memref.load %scratch[%c2] : memref<3xi32>
    memref.store %next, %state[%c0] : memref<2xi32>
    %steps = memref.load %state[%c1] : memref<2xi32>
    %steps1 = arith.addi %steps, %one : i32
    memref.store %steps1, %state[%c1] : memref<2xi32>
    printf.print_format "{}\n", %next : i32
    memref.dealloc %scratch : memref<3xi32>
    scf.yield
  }
  %steps = memref.load %state[%c1] : memref<2xi32>
  printf.print_format "steps {}\n", %steps : i32
  memref.dealloc %state : memref<2xi32>
  func.return
}

// CHECK:      3
// CHECK-NEXT: 10
// CHECK-NEXT: 5
// CHECK-NEXT: 16
// CHECK-NEXT: 8
// CHECK-NEXT: 4
// CHECK-NEXT: 2
// CHECK-NEXT: 1
// CHECK-NEXT: steps 8

// PLACED: %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 768 : i64, lanearena.lower_bound = 768 : i64, lanearena.algorithm = "{{.*}}"} : memref<768xi8>
// PLACED-NOT: memref.alloc()
