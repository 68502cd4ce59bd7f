"""The app's presentation layer: Plotly figure builders (pure), safe text helpers and the
Streamlit shell (sidebar, cached model, banners). No attention maths lives here."""
