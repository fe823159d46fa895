extension Array {
    /// The first index whose element `belongs` accepts, in an array where every element it accepts comes after
    /// every one it refuses (a binary search).
    package func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
