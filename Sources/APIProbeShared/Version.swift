/// The apiprobe version, written into fixtures, usage manifests and `apiprobe --version`.
package let apiprobeVersion = "0.1.0"
