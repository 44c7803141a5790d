import Foundation

/// The base of every result, as Vision's `VNObservation`.
public class VNObservation: @unchecked Sendable {
    /// A unique identifier of this observation.
    public let uuid = UUID()
    /// How much to trust the observation, 0...1.
    public let confidence: Float

    init(confidence: Float) {
        self.confidence = confidence
    }
}

/// An observation made of named points in named groups, as Vision's
/// `VNRecognizedPointsObservation`. The hand and body pose observations add their typed
/// `JointName` / `JointsGroupName` accessors.
public class VNRecognizedPointsObservation: VNObservation, @unchecked Sendable {
    /// Every point, by key.
    let points: [VNRecognizedPointKey: VNRecognizedPoint]
    /// The keys of each group's points; `all` holds every key.
    let groups: [(group: VNRecognizedPointGroupKey, keys: [VNRecognizedPointKey])]

    init(points: [VNRecognizedPoint], groups: [(VNRecognizedPointGroupKey, [VNRecognizedPointKey])], confidence: Float) {
        self.points = Dictionary(points.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        self.groups = groups.map { (group: $0.0, keys: $0.1) }
        super.init(confidence: confidence)
    }

    /// The keys of every point, in the observation's order.
    public var availableKeys: [VNRecognizedPointKey] { groups.first { $0.group == .all }?.keys ?? [] }

    /// The keys of every group.
    public var availableGroupKeys: [VNRecognizedPointGroupKey] { groups.map(\.group) }

    /// The point with `pointKey`; `VNError(.invalidArgument)` for a key this observation does
    /// not have.
    public func recognizedPoint(forKey pointKey: VNRecognizedPointKey) throws -> VNRecognizedPoint {
        guard let point = points[pointKey] else {
            throw VNError(.invalidArgument, "unknown point key '\(pointKey.rawValue)' (known: \(availableKeys.map(\.rawValue).joined(separator: ", ")))")
        }
        return point
    }

    /// The points of the group `groupKey`; `VNError(.invalidArgument)` for a group this
    /// observation does not have.
    public func recognizedPoints(forGroupKey groupKey: VNRecognizedPointGroupKey) throws -> [VNRecognizedPointKey: VNRecognizedPoint] {
        guard let keys = groups.first(where: { $0.group == groupKey })?.keys else {
            throw VNError(.invalidArgument, "unknown group key '\(groupKey.rawValue)' (known: \(availableGroupKeys.map(\.rawValue).joined(separator: ", ")))")
        }
        var result: [VNRecognizedPointKey: VNRecognizedPoint] = [:]
        for key in keys { result[key] = points[key] }
        return result
    }
}

extension VNRecognizedPointsObservation {
    /// The keys of every point as a typed joint name (`JointName`).
    func availableNames<Name: RawRepresentable>(_: Name.Type) -> [Name] where Name.RawValue == VNRecognizedPointKey {
        availableKeys.compactMap(Name.init(rawValue:))
    }

    /// The keys of every group as a typed group name (`JointsGroupName`).
    func availableGroupNames<Group: RawRepresentable>(_: Group.Type) -> [Group] where Group.RawValue == VNRecognizedPointGroupKey {
        availableGroupKeys.compactMap(Group.init(rawValue:))
    }

    /// The points of `group` keyed by typed joint name; throws as `recognizedPoints(forGroupKey:)`.
    func points<Name: RawRepresentable & Hashable>(in group: VNRecognizedPointGroupKey, as _: Name.Type) throws
        -> [Name: VNRecognizedPoint] where Name.RawValue == VNRecognizedPointKey
    {
        var result: [Name: VNRecognizedPoint] = [:]
        for (key, point) in try recognizedPoints(forGroupKey: group) {
            if let name = Name(rawValue: key) { result[name] = point }
        }
        return result
    }
}

extension VNRecognizedPointGroupKey {
    /// Every point of an observation (Vision's `VNRecognizedPointGroupKeyAll`).
    public static let all = VNRecognizedPointGroupKey(rawValue: "VNIPOAll")
}
