import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// deploy/kubernetes: the manifests are valid Kubernetes objects (PyPI's `kubernetes-validate --strict`, offline,
/// against the Kubernetes schemas it carries), and the containers' arguments are a valid `apiprobe run` of the
/// ConfigMap's config (`--dry-run`: the config is read, its variables resolved, nothing sent).
@Suite(.tags(.commandLine, .outsideTools), .hangGuard, .temporaryFolder)
struct DeploymentManifestTests {
    static let folder = OpenAPICommandTests.repository.appendingPathComponent("deploy/kubernetes")
    static let manifests = ["base/configmap.yaml", "cronjob/cronjob.yaml", "every/deployment.yaml", "base/pvc.yaml"]

    /// A program of the tests' virtual environment (`.ci/run` makes it), or a failure under CI and a known issue
    /// elsewhere.
    static func tool(_ name: String) -> URL? {
        let environment = ProcessInfo.processInfo.environment
        let candidates: [String?] = [
            environment["OPENAPI_SPEC_VALIDATOR"].map {
                URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(name).path
            },
            OpenAPICommandTests.repository.appendingPathComponent(".build/venv-openapi/bin/\(name)").path,
        ]
        if let found = candidates.compactMap({ $0 }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        {
            return URL(fileURLWithPath: found)
        }
        TestEnvironment.recordMissing(
            "\(name) is missing from the tests' Python environment (.build/venv-openapi): run .ci/run")
        return nil
    }

    @Test func theManifestsAreValidKubernetesObjects() async throws {
        guard let validate = Self.tool("kubernetes-validate") else { return }
        let paths = Self.manifests.map { Self.folder.appendingPathComponent($0).path }
        let result = try await CommandLineRunner.runProcess(validate, ["--strict"] + paths)
        #expect(result.status == 0, "\(result)")
        let output = result.standardOutput + result.standardError
        for resource in [
            "configmap/apiprobe-config", "cronjob/apiprobe", "deployment/apiprobe",
            "persistentvolumeclaim/apiprobe-state",
        ] {
            #expect(output.contains("passed for resource \(resource)"), "\(output)")
        }

        // The validator is no rubber stamp: a field the schema lacks fails.
        let directory = try TemporaryFolder.make("manifests")
        let cronJob = try String(
            contentsOf: Self.folder.appendingPathComponent("cronjob/cronjob.yaml"), encoding: .utf8)
        let broken = directory.appendingPathComponent("cronjob.yaml")
        try Data(
            cronJob.replacingOccurrences(
                of: "restartPolicy: Never", with: "restartPolicy: Never\n          restartsAllowed: 3"
            ).utf8
        ).write(to: broken)
        let refused = try await CommandLineRunner.runProcess(validate, ["--strict", broken.path])
        #expect(refused.status != 0)
        #expect((refused.standardOutput + refused.standardError).contains("'restartsAllowed' was unexpected"))
    }

    /// One workload per overlay (issue 38, item 5): `kubectl apply -k deploy/kubernetes/cronjob` or `…/every`
    /// each starts one writer of the history, and the folder itself holds no manifest, so `kubectl apply -f
    /// deploy/kubernetes/` cannot start both. The Deployment's grace period outlasts its round's deadline (SIGTERM
    /// lets the round finish).
    @Test func eachOverlayIsOneWorkloadWithAGracePeriodPastTheDeadline() async throws {
        guard let python = Self.tool("python3") else { return }
        // The resources of each overlay's kustomization, followed through folders as kustomize does.
        let script = """
            import json, os, sys, yaml
            root = sys.argv[1]
            def resources(folder):
                found = []
                with open(os.path.join(folder, "kustomization.yaml")) as file:
                    for entry in yaml.safe_load(file)["resources"]:
                        path = os.path.normpath(os.path.join(folder, entry))
                        if os.path.isdir(path):
                            found += resources(path)
                        else:
                            found += [doc for doc in yaml.safe_load_all(open(path)) if doc]
                return found
            overlays = {}
            for name in ["cronjob", "every"]:
                overlays[name] = sorted(doc["kind"] for doc in resources(os.path.join(root, name)))
            top = sorted(entry for entry in os.listdir(root) if entry.endswith((".yaml", ".yml", ".json")))
            deployment = yaml.safe_load(open(os.path.join(root, "every/deployment.yaml")))
            config = yaml.safe_load(yaml.safe_load(open(os.path.join(root, "base/configmap.yaml")))["data"]["apiprobe.yml"])
            print(json.dumps({
                "overlays": overlays, "top": top,
                "grace": deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"],
                "deadline": config["deadline"],
            }))
            """
        let read = try await CommandLineRunner.runProcess(python, ["-c", script, Self.folder.path])
        try #require(read.status == 0, "\(read)")
        let layout = try JSONValue(parsing: Data(read.standardOutput.utf8))
        #expect(
            layout["overlays"]
                == .object([
                    ("cronjob", .array([.string("ConfigMap"), .string("CronJob"), .string("PersistentVolumeClaim")])),
                    (
                        "every",
                        .array([.string("ConfigMap"), .string("Deployment"), .string("PersistentVolumeClaim")])
                    ),
                ]), "\(layout)")
        #expect(layout["top"] == .array([]), "\(layout)")
        guard case .string(let deadlineText)? = layout["deadline"], case .number(let graceText)? = layout["grace"],
            let deadline = parseDuration(deadlineText), let grace = Double(graceText)
        else {
            Issue.record("\(layout)")
            return
        }
        // The round's deadline, then up to 10 s of alerts, then the push.
        #expect(grace > deadline.timeInterval + 10, "\(layout)")
    }

    @Test func theContainersRunTheConfigMapsConfig() async throws {
        guard let python = Self.tool("python3") else { return }
        // The ConfigMap's config and each container's arguments, read by PyYAML (openapi-spec-validator brings it).
        let script = """
            import json, sys, yaml
            folder = sys.argv[1]
            config = yaml.safe_load(open(folder + "/base/configmap.yaml"))["data"]["apiprobe.yml"]
            cron = yaml.safe_load(open(folder + "/cronjob/cronjob.yaml"))
            deployment = yaml.safe_load(open(folder + "/every/deployment.yaml"))
            args = {
                "cronjob": cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"],
                "deployment": deployment["spec"]["template"]["spec"]["containers"][0]["args"],
            }
            print(json.dumps({"config": config, "args": args}))
            """
        let read = try await CommandLineRunner.runProcess(python, ["-c", script, Self.folder.path])
        try #require(read.status == 0, "\(read)")
        struct Manifests: Decodable {
            var config: String
            var args: [String: [String]]
        }
        let manifests = try JSONDecoder().decode(Manifests.self, from: Data(read.standardOutput.utf8))
        let directory = try TemporaryFolder.make("manifest-run")
        try Data(manifests.config.utf8).write(to: directory.appendingPathComponent("apiprobe.yml"))
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        #expect(manifests.args.keys.sorted() == ["cronjob", "deployment"])
        for (name, arguments) in manifests.args.sorted(by: { $0.key < $1.key }) {
            // The container's paths, in the test's folder.
            let local = arguments.map {
                $0.replacingOccurrences(of: "/config/", with: directory.path + "/")
                    .replacingOccurrences(of: "/state/", with: directory.path + "/state/")
            }
            #expect(local.first == "run", "\(name)")
            // No silent default for a secret: without API_TOKEN the run stops and names it (issue 38, item 6).
            let unset = try await CommandLineRunner.run(
                local + ["--dry-run"], environment: ["SLACK_WEBHOOK_URL": "https://hooks.example/T1"], in: directory)
            #expect(unset.status == 2, "\(name): \(unset)")
            #expect(
                unset.standardError.contains("expected the environment variable API_TOKEN to be set"),
                "\(name): \(unset)")
            let result = try await CommandLineRunner.run(
                local + ["--dry-run"],
                environment: ["API_TOKEN": "t0ken-FROM-secret", "SLACK_WEBHOOK_URL": "https://hooks.example/T1"],
                in: directory)
            #expect(result.status == 0, "\(name): \(result)")
            #expect(result.standardOutput.contains("nothing sent (--dry-run)"), "\(name): \(result)")
            #expect(result.standardOutput.contains("push: http://pushgateway.monitoring.svc:9091"), "\(name)")
            #expect(!(result.standardOutput + result.standardError).contains("t0ken-FROM-secret"), "\(name)")
        }
    }
}
