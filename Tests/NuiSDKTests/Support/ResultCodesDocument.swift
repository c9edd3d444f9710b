import Foundation

/// Sources/NuiSDK/ResultCodes.md, read as tables, so tests hold the code to what is published.
enum ResultCodesDocument {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/NuiSDK/ResultCodes.md").path

    /// The rows (cells without the outer pipes, trimmed) of the table under the heading `## title`.
    static func table(_ title: String) throws -> [[String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = text.range(of: "## \(title)\n") else { return [] }
        var rows: [[String]] = []
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue } // the separator row
            rows.append(cells)
        }
        return Array(rows.dropFirst()) // the header row
    }

    /// `code` cells are written `` `NAME` ``: the name without backticks.
    static func name(_ cell: String) -> String {
        cell.split(separator: " ").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) } ?? cell
    }
}
