# erlperf as a Mix project, for Elixir projects that depend on it: `{:erlperf, path: "..."}`
# or `{:erlperf, git: "..."}`. Mix compiles the Erlang sources of src/ itself (no rebar3
# needed) and the Elixir API of lib/ (`Erlperf`, `mix erlperf`). Erlang users build with
# rebar3 (rebar.config), which ignores this file and lib/.
defmodule Erlperf.MixProject do
  use Mix.Project

  def project do
    [
      app: :erlperf,
      version: "3.0.0",
      elixir: "~> 1.14",
      erlc_paths: ["src"],
      erlc_include_path: "src",
      erlc_options: [:debug_info],
      elixirc_paths: ["lib"],
      deps: []
    ]
  end

  # What src/erlperf.app.src says; tools and runtime_tools (for --profile) are left out,
  # as they are optional there.
  def application do
    [
      mod: {:erlperf_app, []},
      registered: [:erlperf, :erlperf_sup, :erlperf_job_sup, :erlperf_monitor, :erlperf_cluster_history],
      extra_applications: [:compiler],
      env: [providers: [:erlperf_rebar3]]
    ]
  end
end
