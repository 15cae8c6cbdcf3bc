from .tools.entry import main

main()
