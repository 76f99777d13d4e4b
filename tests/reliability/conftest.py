"""probe"""
X = 1
