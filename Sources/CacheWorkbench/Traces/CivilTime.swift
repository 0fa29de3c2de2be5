/// Calendar date and time (UTC) to seconds since 1970, with Howard Hinnant's
/// days-from-civil algorithm (proleptic Gregorian; no Foundation formatter per row).
enum CivilTime {
    static func unixSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }
}
