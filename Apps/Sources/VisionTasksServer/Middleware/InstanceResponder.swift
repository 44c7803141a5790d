import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// `X-Vision-Tasks-Instance`: the name of the replica that answered (`ServerConfiguration.instance`).
    static let visionTasksInstance = HTTPField.Name("X-Vision-Tasks-Instance")!
}

/// The outermost HTTP responder: puts `X-Vision-Tasks-Instance` on every answer, errors
/// included (it renders them itself, as Hummingbird would, to add the header), so that a client
/// behind a load balancer can tell which replica answered. (Answers written before HTTP is
/// parsed carry it through `ServerError.rawResponse(instance:)`, the WebSocket upgrade's 101
/// through the live route.)
struct InstanceResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: RequestContext {
    typealias Context = Base.Context

    let base: Base
    /// The header's value.
    let instance: String

    func respond(to request: Request, context: Context) async throws -> Response {
        var response: Response
        do {
            response = try await base.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.visionTasksInstance] = instance
        return response
    }
}
