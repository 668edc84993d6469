defmodule App.Work do
  @moduledoc "The project's code under measurement."
  def sum100, do: Enum.reduce(1..100, 0, &+/2)
end
