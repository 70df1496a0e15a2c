; One neuron with a Heaviside activation: step(w1*x1 + w2*x2) (Trama et al., Section 7.2).
; Run: encint asm run examples/neuron_heaviside.asm --clear --input x1=0.5 --input x2=-0.25
const w1 = 192
const w2 = -128
input x1: fixed, x2: fixed
p1 = FMULI x1, w1
p2 = FMULI x2, w2
z = FADD p1, p2
y = FHEAV z
output z, y
