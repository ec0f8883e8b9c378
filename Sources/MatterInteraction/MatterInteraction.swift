// MatterInteraction: the Interaction Model message layer (Matter Core chapter 8) as sans-I/O code.
//
// Scope: the opcodes and status codes of protocol 0x0001, hand-written wire types for every
// information block and message, wildcard path expansion, report chunking and reassembly, the
// client (`InteractionClient`) and server (`InteractionServer`) logic over a small exchange
// boundary (`IMExchange`), the subscription report scheduler, and the cluster, attribute and
// command IDs (with typed request/response structs) the commissioner needs.
// Transport, sessions and exchanges live in MatterMessaging; this module never does I/O.

/// The Interaction Model revision this implementation writes into every message
/// (Matter 1.4 and the current SDK and matter.js send 12).
public let interactionModelRevision: UInt8 = 12
