# A project depending on erlperf by path, as doc/elixir.md shows.
defmodule App.MixProject do
  use Mix.Project

  def project do
    [app: :app, version: "0.1.0", elixir: "~> 1.14", deps: [{:erlperf, path: "../erlperf"}]]
  end

  def application, do: []
end
