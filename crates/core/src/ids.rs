//! Node indices of the circuit IR, below both the IR ([`crate::circuit`]) and the error type
//! ([`crate::CoreError`] names the node a noise-budget violation is at).

node_index! {
    /// Index of a node in its circuit.
    NodeId
}
