print("benchmark not built yet")
