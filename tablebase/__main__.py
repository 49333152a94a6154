from tablebase.cli import run

run()
