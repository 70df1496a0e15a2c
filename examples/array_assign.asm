; Assignment a[idx] = v at an encrypted index idx (Trama et al., Algorithm 4): every element
; is rewritten, the one at idx with v, the others with themselves.
; Run: encint asm run examples/array_assign.asm --clear --input a=1,2,3,4,5 --input idx=3 --input v=99
const n = 5
input a[n], idx, v
for j in 0..n {
  hit = EQI idx, j
  keep = NCDUP hit, a[j]
  put = CDUP hit, v
  a[j] = ADDZ put, keep
}
output a
