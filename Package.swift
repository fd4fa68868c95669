// swift-tools-version:6.0
import Foundation
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A directory linking to Debian 12's `libstdc++.a`, named to the linker before GCC's so that commitsctl links
/// the C++ runtime in and starts faster (docs/OPERATIONS.md, "commitsctl carries its C++ runtime").
let staticLibraries = Context.packageDirectory + "/Sources/commitsctl/StaticLibraries"
let linksCxxRuntimeStatically = FileManager.default.fileExists(atPath: staticLibraries + "/libstdc++.a")

let package = Package(
    name: "commits-mirror",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "commitsctl", targets: ["commitsctl"]),
        .executable(name: "github-sim", targets: ["github-sim"]),
        .executable(name: "commitsd", targets: ["commitsd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // MARK: - C libraries
        // libcurl is loaded on first use, so a command that sends no request does not map it.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libpq is loaded on first use too, so a command on a SQLite store does not map it.
        .target(name: "CPostgreSQL", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The SQLite store's `message_contains`, in C because it runs once per row a search reads.
        .target(name: "CMessageSearch", dependencies: ["CSQLite"]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's malloc tuning, which the executables set before their first allocation.
        .systemLibrary(name: "CMalloc"),

        // MARK: - Thin wrappers
        .target(name: "Curl", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        .target(name: "SQLite", dependencies: ["CSQLite"], swiftSettings: swiftSettings),
        .target(name: "PostgreSQL", dependencies: ["CPostgreSQL"], swiftSettings: swiftSettings),
        // Git's SHA-1 and object id on their own, because MirrorCore, GitTrees and GitHubSim need them and GitHubSim must depend on neither other.
        .target(
            name: "GitHash", dependencies: [.product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        // Git's tree objects verified, and the paths each commit changed, apart from any transport or store.
        .target(name: "GitTrees", dependencies: ["GitHash"], swiftSettings: swiftSettings),

        // MARK: - The product
        // Foundation only, so the core, both stores and the executables share one vocabulary without a backend.
        .target(name: "MirrorModel", swiftSettings: swiftSettings),
        // No store and no C wrapper of one, so that a backend is chosen by the driver an executable registers.
        .target(
            name: "MirrorCore",
            dependencies: [
                "MirrorModel", "Curl", "CZlib", "CMalloc", "GitHash", "GitTrees",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both stores keep alike, written once over one SQL session (SQLSession): no database linked.
        .target(name: "MirrorBookkeeping", dependencies: ["MirrorModel", "MirrorCore"], swiftSettings: swiftSettings),
        // One target per backend, so that only a store's own target links its database's library.
        .target(
            name: "MirrorSQLite", dependencies: ["MirrorModel", "MirrorCore", "MirrorBookkeeping", "SQLite", "CMessageSearch", "GitHash"],
            swiftSettings: swiftSettings),
        .target(
            name: "MirrorPostgreSQL", dependencies: ["MirrorModel", "MirrorCore", "MirrorBookkeeping", "PostgreSQL"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "commitsctl",
            dependencies: [
                "MirrorModel", "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            exclude: ["StaticLibraries"],
            swiftSettings: swiftSettings,
            // Release builds link position-dependent, by lld with the C++ runtime in, for start-up time
            // (docs/OPERATIONS.md, "commitsctl is not a PIE" and "commitsctl carries its C++ runtime").
            linkerSettings: [
                .unsafeFlags(
                    ["-Xclang-linker", "-no-pie"]
                        + (linksCxxRuntimeStatically ? ["-use-ld=lld", "-L", staticLibraries] : []),
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),

        // MARK: - The service
        .executableTarget(
            name: "commitsd",
            dependencies: [
                "MirrorModel", "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - The GitHub imitation
        .target(
            name: "GitHubSim",
            dependencies: [
                "CZlib", "GitHash",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "github-sim",
            dependencies: [
                "GitHubSim",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks
        // Not a product: it builds the synthetic stores Benchmarks/*.sh measure.
        .executableTarget(
            name: "mirror-bench",
            dependencies: ["MirrorCore", "MirrorSQLite", "MirrorPostgreSQL", "GitHubSim"],
            path: "Benchmarks/mirror-bench",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        // What every test target shares (paths, temporary directories, process runners), written once.
        .target(
            name: "MirrorTestSupport",
            dependencies: [
                "Curl", "SQLite", "PostgreSQL", "GitHubSim", "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/MirrorTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "CurlTests", dependencies: ["MirrorTestSupport", "Curl", "GitHubSim"], swiftSettings: swiftSettings),
        .testTarget(name: "GitHashTests", dependencies: ["MirrorTestSupport", "GitHash"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GitTreesTests",
            dependencies: [
                "MirrorTestSupport", "GitTrees", "GitHash", "MirrorCore", "MirrorModel", "GitHubSim", "MirrorSQLite", "commitsctl",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "SQLiteTests", dependencies: ["MirrorTestSupport", "SQLite"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgreSQLTests", dependencies: ["MirrorTestSupport", "PostgreSQL"], swiftSettings: swiftSettings),
        .testTarget(name: "MirrorModelTests", dependencies: ["MirrorTestSupport", "MirrorModel"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MirrorCoreTests",
            dependencies: [
                "MirrorTestSupport", "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL", "PostgreSQL", "GitHubSim", "SQLite", "GitHash",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MirrorSQLiteTests",
            dependencies: ["MirrorTestSupport", "MirrorCore", "MirrorSQLite", "SQLite", "GitHubSim"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MirrorPostgreSQLTests",
            dependencies: ["MirrorTestSupport", "MirrorCore", "MirrorPostgreSQL", "PostgreSQL"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GitHubSimTests", dependencies: ["MirrorTestSupport", "GitHubSim", "GitHash", "Curl"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CommitsctlTests",
            dependencies: [
                "MirrorTestSupport", "commitsctl", "github-sim", "GitHubSim", "MirrorCore", "MirrorSQLite", "SQLite", "PostgreSQL", "Curl",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CommitsdTests",
            dependencies: [
                "MirrorTestSupport", "commitsd", "commitsctl", "github-sim", "GitHubSim", "MirrorCore", "MirrorSQLite", "SQLite",
                "PostgreSQL", "Curl",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
