/// A command line written so a POSIX shell reads back the same arguments (the results'
/// `command` column): a word of only characters no shell treats specially stays bare, any
/// other is single-quoted, an embedded ' written '\'' (POSIX Shell Command Language §2.2.2:
/// inside single quotes every character is literal, and one cannot hold a single quote).
/// O(total length).
public enum ShellQuoting {
    public static func line(_ arguments: [String]) -> String {
        arguments.map(word).joined(separator: " ")
    }

    public static func word(_ text: String) -> String {
        guard text.isEmpty || !text.unicodeScalars.allSatisfy(isPlain) else { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "@", "%", "+", "=", ":", ",", ".", "/", "-": return true
        default: return false
        }
    }
}
