/// An image's format, for a per-type decoded/encoded ratio (`--decoded-ratio jpeg=8,png=4`).
/// Found from the response's content type when the trace recorded one (a HAR's
/// `response.content.mimeType`), else from the URL path's extension; nil when neither says.
///
/// GIF: a trace gives the encoded bytes of the whole file and never its frame count (a
/// HAR without bodies has no frames at all; with a body, `ImageDimensions` reads only the
/// logical screen size, one frame's). A `gif=R` ratio is the user's assumption of decoded
/// bytes per encoded byte for the whole animation, frames included; the workbench cannot
/// check it. A GIF priced by its dimensions (a body in the trace) is one frame, w × h × 4.
public enum ImageType: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, heic, avif

    /// The type of `request`: its content type, else its URL's extension. O(URL length).
    public static func of(_ request: Request) -> ImageType? {
        if let mime = request.http?.mimeType, let type = ofMIMEType(mime) { return type }
        guard let name = request.name else { return nil }
        return ofURL(name)
    }

    /// `image/jpeg` → jpeg (parameters after `;` ignored, case-insensitive).
    public static func ofMIMEType(_ mime: String) -> ImageType? {
        let essence = mime.split(separator: ";").first.map { String($0).trimmingSpaces.lowercased() } ?? ""
        switch essence {
        case "image/jpeg", "image/jpg", "image/pjpeg": return .jpeg
        case "image/png", "image/apng": return .png
        case "image/gif": return .gif
        case "image/webp": return .webp
        case "image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence": return .heic
        case "image/avif": return .avif
        default: return nil
        }
    }

    /// The extension of the URL's last path segment (query and fragment left out).
    public static func ofURL(_ url: String) -> ImageType? {
        let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let withoutFragment = path.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let last = withoutFragment.split(separator: "/").last, let dot = last.lastIndex(of: ".") else { return nil }
        switch last[last.index(after: dot)...].lowercased() {
        case "jpg", "jpeg", "jpe", "jfif": return .jpeg
        case "png", "apng": return .png
        case "gif": return .gif
        case "webp": return .webp
        case "heic", "heif": return .heic
        case "avif": return .avif
        default: return nil
        }
    }
}
