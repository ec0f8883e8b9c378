// The API's values are JSON: every user of the wire types uses MatterJSON's too.
@_exported import MatterJSON
