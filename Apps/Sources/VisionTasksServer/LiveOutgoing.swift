import Foundation

/// A message a live session sends its client: a JSON answer (text), or the bytes a teach
/// `download` request asks for (binary, announced by the text answer before it).
enum LiveOutgoing: Sendable {
    case text(String)
    case binary(Data)
}
