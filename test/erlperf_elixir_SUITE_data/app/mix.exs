# A project depending on erlperf by path, as doc/elixir.md shows. `:tools` is named because
# Mix (Elixir 1.15 and later) keeps on the code path only the applications a project names,
# and erlperf's profilers (profile_after) are OTP's tools.
defmodule App.MixProject do
  use Mix.Project

  def project do
    [app: :app, version: "0.1.0", elixir: "~> 1.14", deps: [{:erlperf, path: "../erlperf"}]]
  end

  def application, do: [extra_applications: [:tools]]
end
