import ArgumentParser
import Foundation

/// `vision-tasks serve`'s options from the environment, as containers are configured: each
/// option `--NAME` of `ServeCommand.optionNames` is read from `VISION_TASKS_` + NAME in
/// capitals with `-` as `_` (`--max-sessions`: `VISION_TASKS_MAX_SESSIONS`); a flag's variable
/// is 1, true or yes to set it. An option on the command line wins over its variable;
/// `--allowed-origin`, which repeats, takes a list separated by commas or spaces. An empty
/// variable counts as unset.
enum ServeEnvironment {
    /// The variable of the option `--name`.
    static func variable(for name: String) -> String {
        "VISION_TASKS_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `arguments` (those after `serve`) with the options set in `environment` and not on the
    /// command line put before them. Each variable's value is checked as its option alone
    /// (its type and range), so that a bad one is a `ValidationError` naming the variable.
    static func arguments(_ arguments: [String], environment: [String: String]) throws -> [String] {
        // Options after a `--` are not options.
        let given = arguments.prefix { $0 != "--" }
        var added: [String] = []
        for name in ServeCommand.optionNames {
            let variable = variable(for: name)
            guard let value = environment[variable], !value.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let flag = "--\(name)"
            guard !given.contains(where: { $0 == flag || $0.hasPrefix(flag + "=") }) else { continue }
            if ServeCommand.flagNames.contains(name) {
                switch value.trimmingCharacters(in: .whitespaces).lowercased() {
                case "1", "true", "yes": added.append(flag)
                case "0", "false", "no": break
                default: throw ValidationError("\(variable)=\(value) is not a valid \(flag): give 1, true or yes to set it (0, false or no to leave it unset)")
                }
                continue
            }
            let values = name == "allowed-origin"
                ? value.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
                : [value]
            let options = values.map { flag + "=" + $0 }
            do {
                _ = try ServeCommand.parse(options)
            } catch {
                throw ValidationError("\(variable)=\(value) is not a valid --\(name): \(ServeCommand.message(for: error))")
            }
            added += options
        }
        return added + arguments
    }
}
