; Average of n encrypted bytes as a 16-bit fixed-point value, including the final
; decimal division by the clear n (Trama et al., Algorithm 3). The sum must fit in a byte.
; Run: encint asm run examples/average.asm --clear --input a=10,20,30,40,51
const n = 5
input a[n]
s = ADD a[0], a[1]
for i in 2..n {
  s = ADD s, a[i]
}
avg = FDIVI s, n
output s, avg
