; One neuron: sigmoid(w1*x1 + w2*x2) on 16-bit fixed-point values (Trama et al., Section 7.2).
; Weights are clear fixed-point constants given raw (value * 256): 0.75 -> 192, -0.5 -> -128.
; Run: encint asm run examples/neuron_sigmoid.asm --clear --input x1=0.5 --input x2=-0.25
const w1 = 192
const w2 = -128
input x1: fixed, x2: fixed
p1 = FMULI x1, w1
p2 = FMULI x2, w2
z = FADD p1, p2
y = FSIG z
output z, y
