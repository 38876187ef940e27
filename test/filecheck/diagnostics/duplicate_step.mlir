// RUN: not lanearena-opt %s 2>&1 | filecheck %s
// RUN: not lanearena place %s 2>&1 | filecheck %s --check-prefix=PLACE

// Two steps of one name: the second is at fault, at its own line (xDSL's symbol table names none).
// CHECK: duplicate_step.mlir:12:1: error: lane.step @s is defined twice, first at {{.*}}duplicate_step.mlir:8:1
// PLACE: lanearena place: error: {{.*}}duplicate_step.mlir:12:1: lane.step @s is defined twice, first at {{.*}}duplicate_step.mlir:8:1

lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<4xf32>
  lane.output %x : !lane.tensor<4xf32>
}
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<4xf32>
  lane.output %x : !lane.tensor<4xf32>
}
